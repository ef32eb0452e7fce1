import Foundation
import LocationCore
import LocationTestSupport
import Testing

@testable import LocationDaemon
@testable import Varlink

#if canImport(Glibc)
import Glibc
#endif

/// SEMANTICS I3 and I4 on ``PeerIdentity`` with a `/proc` the test writes: what a pid runs or belongs to
/// now grants nothing.
@Suite("Peer identity")
struct PeerIdentityTests {
    /// A directory standing in for `/proc`, removed at the end.
    private final class FakeProc {
        private let directory: TemporaryDirectory
        var root: URL { URL(fileURLWithPath: directory.path) }

        init() throws { directory = try TemporaryDirectory(prefix: "locd-proc") }
        deinit { directory.remove() }

        /// Makes `pid` look like a process in the admin group (`Groups: 0`) running `executable`.
        func process(_ pid: Int32, executable: String) throws {
            let directory = root.appendingPathComponent("\(pid)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try "Name:\tadmin\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t0 \n".write(
                to: directory.appendingPathComponent("status"),
                atomically: true,
                encoding: .utf8
            )
            try FileManager.default.createSymbolicLink(
                atPath: directory.appendingPathComponent("exe").path,
                withDestinationPath: executable
            )
        }
    }

    /// A connected socket pair whose reading end gets the writers' credentials and pidfds.
    private func credentialedPair() throws -> (reader: Int32, writer: Int32) {
        var descriptors: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0 else { throw POSIXError(.EIO) }
        var on: Int32 = 1
        setsockopt(descriptors[0], SOL_SOCKET, SocketConstants.passCredentials, &on, 4)
        if SocketConstants.pidfdsSupported { setsockopt(descriptors[0], SOL_SOCKET, SocketConstants.passPidfd, &on, 4) }
        return (descriptors[0], descriptors[1])
    }

    private func sender(of read: CredentialedRead) -> MessageSender? {
        guard case .bytes(_, .process(let sender), _) = read else { return nil }
        return sender
    }

    @Test("I3: a pid that now belongs to the admin group gives a connection of another user no privilege")
    func adminByConnectTimeCredentials() throws {
        let proc = try FakeProc()
        try proc.process(4242, executable: "/usr/bin/sleep")
        let identity = PeerIdentity(adminGroup: "root", procRoot: proc.root.path, daemonUID: 999)
        // Connected as nobody with no supplementary groups; /proc now says pid 4242 is in group 0.
        let nobody = PeerCredentials(pid: 4242, uid: 65534, gid: 65534, groups: [])
        #expect(identity.refusalToAdminister(peer: nobody) != nil)
        // A member of the group when it connected, by a supplementary group.
        let member = PeerCredentials(pid: 4242, uid: 65534, gid: 65534, groups: [100, 0])
        #expect(identity.refusalToAdminister(peer: member) == nil)
    }

    @Test(
        "I4: the sender of Hello is checked while it holds its pid; once gone, what the pid runs now is not it",
        .enabled(if: SocketConstants.pidfdsSupported, "needs SCM_PIDFD (Linux 6.5)")
    )
    func exitedSender() throws {
        let (reader, writer) = try credentialedPair()
        defer {
            close(reader)
            close(writer)
        }
        // A process writes and exits, and is reaped: its pid is free for any other process to take.
        let echo = Process()
        echo.executableURL = URL(fileURLWithPath: "/bin/echo")
        echo.arguments = ["gone"]
        echo.standardOutput = FileHandle(fileDescriptor: writer, closeOnDealloc: false)
        try echo.run()
        try #require(echo.waitUntilReaped(), "echo exited and was not reaped")
        let gone = try #require(sender(of: CredentialedRead.receive(descriptor: reader, capacity: 4096)))
        #expect(gone.pid == echo.processIdentifier)
        #expect(!gone.isRunning)
        // This process writes: it is running.
        #expect(write(writer, "x", 1) == 1)
        let running = try #require(sender(of: CredentialedRead.receive(descriptor: reader, capacity: 4096)))
        #expect(running.pid == getpid())
        #expect(running.isRunning)

        // Both pids now look, in /proc, like processes running the app's executable (a reused pid).
        let proc = try FakeProc()
        try proc.process(gone.pid, executable: "/usr/bin/sleep")
        try proc.process(running.pid, executable: "/usr/bin/sleep")
        let identity = PeerIdentity(adminGroup: "root", procRoot: proc.root.path)
        let manifest = Manifest(appID: "com.ex.sleeper", identity: .executable, executables: ["/usr/bin/sleep"])
        let refusal = identity.refusal(toSpeakFor: manifest, peer: nil, sender: .process(gone))
        #expect(refusal?.reason.contains("exited before its executable could be checked") == true)
        #expect(refusal?.answer.contains("/usr/bin/sleep") == false)
        #expect(identity.refusal(toSpeakFor: manifest, peer: nil, sender: .process(running)) == nil)
    }

    @Test("I10: an SCM_RIGHTS descriptor pushed with the bytes is held by the read, and closed when it is let go")
    func pushedDescriptorsClosed() throws {
        let (reader, writer) = try credentialedPair()
        defer {
            close(reader)
            close(writer)
        }
        // A file only this test opens, so that no other test's descriptors are counted.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("locd-pushed-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: path.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: path) }
        let passed = open(path.path, O_RDONLY)
        let control = [UInt64](repeating: 0, count: 4)  // cmsghdr (16 bytes) + one int, padded
        var message = control
        message.withUnsafeMutableBytes { bytes in
            bytes.storeBytes(of: 20, toByteOffset: 0, as: Int.self)
            bytes.storeBytes(of: SOL_SOCKET, toByteOffset: 8, as: Int32.self)
            bytes.storeBytes(of: SocketConstants.rights, toByteOffset: 12, as: Int32.self)
            bytes.storeBytes(of: passed, toByteOffset: 16, as: Int32.self)
        }
        var byte: UInt8 = 0x41
        let sent = withUnsafeMutablePointer(to: &byte) { pointer in
            message.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: pointer, iov_len: 1)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var header = msghdr()
                    header.msg_iov = vectorPointer
                    header.msg_iovlen = 1
                    header.msg_control = controlBytes.baseAddress
                    header.msg_controllen = 24
                    return sendmsg(writer, &header, 0)
                }
            }
        }
        #expect(sent == 1)
        close(passed)
        func openCopies() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return names.filter {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path.path
            }.count
        }
        let bytes: [UInt8]? = {
            guard
                case .bytes(let bytes, _, let descriptors) = CredentialedRead.receive(descriptor: reader, capacity: 16)
            else { return nil }
            #expect(descriptors.descriptors.count == 1 && descriptors.dropped == 0)
            #expect(openCopies() == 1)
            return bytes
        }()
        #expect(bytes == [0x41])
        #expect(openCopies() == 0)
    }
}
