import Foundation
import LocationTestSupport
import Testing

/// What `VarlinkClient` does with its socket when it cannot connect: watched from outside, with strace, in a real
/// client (`locctl`). A descriptor closed twice is harmless alone, but in a program with threads the second close
/// can take a descriptor another thread has just opened under the same number: its pipe, its file or its socket.
@Suite("Varlink client descriptors")
struct VarlinkDescriptorTests {
    @Test(
        "PROTOCOL: a client that cannot connect closes its socket once, whatever the failure",
        arguments: ["missing", "not a socket", "too long"]
    )
    func failedConnectClosesOnce(failure: String) throws {
        let strace = "/usr/bin/strace"
        try #require(
            FileManager.default.isExecutableFile(atPath: strace),
            "strace is missing: .ci/install-deps --tests"
        )
        let directory = try TemporaryDirectory(prefix: "locd-descriptors")
        let socket: String
        switch failure {
        case "missing": socket = directory.path + "/io.locd"
        case "not a socket":
            socket = directory.path + "/file"
            _ = FileManager.default.createFile(atPath: socket, contents: Data())
        default: socket = directory.path + "/" + String(repeating: "x", count: 120)
        }
        let trace = directory.path + "/strace.txt"
        let locctl = Process()
        locctl.executableURL = URL(fileURLWithPath: strace)
        // -Z: only the calls that failed.
        locctl.arguments = [
            "-f", "-Z", "-e", "trace=close", "-o", trace, DaemonProcess.executable("locctl"), "--socket", socket,
            "status",
        ]
        let output = Pipe()
        locctl.standardOutput = output
        locctl.standardError = output
        try locctl.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(locctl.waitForExit().status == 1, "\(printed)")
        #expect(printed.contains("cannot connect to \(socket)"), "\(printed)")
        let failedCloses = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("close(") && $0.contains("EBADF") && !$0.contains("close(-1)") }
        #expect(failedCloses.isEmpty, "closed twice: \(failedCloses)")
    }
}
