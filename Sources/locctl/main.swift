import LocctlCommands

// The commands are in LocctlCommands, which the multi-call binary (locd-multicall) links too.
Locctl.main()
