import Foundation
import LocctlCommands
import LocdAgentCommand
import LocdCommand
import LocdGeoClueCommand
import LocdNetworkCommand

#if canImport(Glibc)
import Glibc
#endif

// The five programs in one executable, which the Debian packages ship once (as /usr/libexec/locd/locd-multicall) with
// the programs as links to it: the Swift runtime and Foundation, most of each program's size, are then installed once
// instead of five times. It is the program its link is named after, the last component of argv[0]; the kernel names
// the process after the link too (/proc/PID/comm), each program's help and journal entries say its own name, and
// argv[0] is passed on untouched.
let programs = ["locd", "locctl", "locd-agent", "locd-network", "locd-geoclue"]
let invokedAs = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? ""
switch invokedAs {
case "locd": await Locd.launch()
case "locctl": Locctl.main()
case "locd-agent": LocdAgent.main()
case "locd-network": LocdNetwork.main()
case "locd-geoclue": LocdGeoClue.main()
default:
    let message =
        "locd-multicall: run as '\(invokedAs)', which is none of its programs: run it through a link named "
        + "\(programs.joined(separator: ", ")) (as /usr/bin/locd is)\n"
    FileHandle.standardError.write(Data(message.utf8))
    exit(64)  // EX_USAGE
}
