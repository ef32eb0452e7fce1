import LocdGeoClueCommand

// The command is in LocdGeoClueCommand, which the multi-call binary (locd-multicall) links too.
LocdGeoClue.main()
