import ArgumentParser
import Logging

// `--log-level trace|debug|info|notice|warning|error|critical` of locd, locd-network and locd-geoclue. Declared once,
// here: the three commands are linked into one multi-call binary, where a conformance declared by each would be
// three conformances of one type to one protocol, and which the runtime picks is unspecified.
extension Logger.Level: @retroactive ExpressibleByArgument {}
