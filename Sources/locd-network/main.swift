import LocdNetworkCommand

// The command is in LocdNetworkCommand, which the multi-call binary (locd-multicall) links too.
LocdNetwork.main()
