import LocdCommand

// The command is in LocdCommand, which the multi-call binary (locd-multicall) links too.
await Locd.launch()
