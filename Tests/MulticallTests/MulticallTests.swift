import Foundation
import LocationTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `locd-multicall`, the one executable the Debian packages install for the five programs, run through links named
/// after them as /usr/bin's are, against each program's own executable.
@Suite("locd-multicall")
struct MulticallTests {
    static let programs = ["locd", "locctl", "locd-agent", "locd-network", "locd-geoclue"]

    /// A link named `name` to the multi-call binary, in `directory`.
    static func link(_ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.at(name)
        try FileManager.default.createSymbolicLink(
            atPath: path,
            withDestinationPath: URL(fileURLWithPath: DaemonProcess.executable("locd-multicall")).standardized.path
        )
        return path
    }

    @Test(
        "run through a link named after a program, it is that program: its help is the program's own",
        arguments: programs
    )
    func helpOfEachProgram(program: String) throws {
        try TemporaryDirectory.with { directory in
            let own = try ChildProcess([DaemonProcess.executable(program), "--help"])
            let linked = try ChildProcess([try Self.link(program, in: directory), "--help"])
            #expect(own.status == 0)
            #expect(own.output.contains("USAGE: \(program)"))
            #expect(linked.status == own.status)
            #expect(linked.output == own.output)
        }
    }

    @Test("run by any other name, it names the programs and exits 64 (EX_USAGE)")
    func otherName() throws {
        try TemporaryDirectory.with { directory in
            for path in [DaemonProcess.executable("locd-multicall"), try Self.link("locd-other", in: directory)] {
                let run = try ChildProcess([path, "--help"])
                #expect(run.status == 64, "\(path)")
                #expect(run.output.contains("locd, locctl, locd-agent, locd-network, locd-geoclue"), "\(run.output)")
                #expect(run.output.contains("'\(path.split(separator: "/").last ?? "")'"), "\(run.output)")
            }
        }
    }

    @Test("the process of a program run through its link is named after the program (/proc/PID/comm)")
    func processName() throws {
        try TemporaryDirectory.with { directory in
            let socket = directory.at("network.sock")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try Self.link("locd-network", in: directory))
            process.arguments = ["--socket", socket]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // SIGKILL: locd-network takes SIGTERM only once it waits for it, after it has bound its socket.
            defer { process.signalAndWait(SIGKILL) }
            // Serving its socket: it runs as locd-network.
            #expect(eventually(timeout: 20) { FileManager.default.fileExists(atPath: socket) })
            let name = try String(contentsOfFile: "/proc/\(process.processIdentifier)/comm", encoding: .utf8)
            #expect(name == "locd-network\n")
        }
    }
}
