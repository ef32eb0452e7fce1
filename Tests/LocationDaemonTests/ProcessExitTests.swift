import Foundation
import LocationTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The tests' one wait for a child, `waitForExit()`: it must not leave Foundation holding what the child was given.
@Suite("Waiting for a child")
struct ProcessExitTests {
    @Test("A child waited for with waitForExit lets go of its log file: the suite stays far below 1,360 descriptors")
    func descriptorsLetGo() throws {
        let directory = try TemporaryDirectory(prefix: "locd-exit")
        let logPath = directory.path + "/child.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        // Held in a scope of its own, as a test holds it: once the child has ended, only the Process keeps it.
        let logDescriptor: Int32 = try {
            let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/bin/sh")
            child.arguments = ["-c", "echo to the log >&2"]
            child.standardError = log
            try child.run()
            let exit = child.waitForExit()
            #expect(exit.status == 0 && exit.reason == .exit)
            return log.fileDescriptor
        }()
        #expect(try String(contentsOfFile: logPath, encoding: .utf8) == "to the log\n")
        // The number may be another test's by now, but never this file's.
        #expect(Self.target(of: logDescriptor) != logPath, "the log file is still open on \(logDescriptor)")
    }

    private static func target(of descriptor: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
    }
}
