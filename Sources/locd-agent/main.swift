import LocdAgentCommand

// The command is in LocdAgentCommand, which the multi-call binary (locd-multicall) links too.
LocdAgent.main()
