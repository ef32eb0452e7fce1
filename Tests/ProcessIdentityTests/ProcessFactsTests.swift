import Foundation
import LocationTestSupport
import Testing

@testable import ProcessIdentity

#if canImport(Glibc)
import Glibc
#endif

/// The facts a daemon checks of a process another one speaks for: executable, real uid, a pidfd's pid.
@Suite("Process facts")
struct ProcessFactsTests {
    @Test("I9: the executable is /proc/PID/exe's target and the uid the real one of status's Uid: line")
    func fakeTree() throws {
        let proc = try FakeProc()
        try proc.link(20, "exe", to: "/usr/bin/gammastep")
        try proc.write(20, "status", "Name:\tgammastep\nUmask:\t0022\nUid:\t1000\t0\t0\t0\nGid:\t100\t100\t100\t100\n")
        let facts = ProcessFacts(procRoot: proc.root)
        #expect(facts.executable(of: 20) == "/usr/bin/gammastep")
        #expect(facts.realUID(of: 20) == 1000)
        #expect(facts.executable(of: 21) == nil)
        #expect(facts.realUID(of: 21) == nil)
        try proc.write(22, "status", "Name:\tx\nUid:\tnobody\n")
        #expect(facts.realUID(of: 22) == nil)
        try proc.write(23, "status", "Name:\tx\n")
        #expect(facts.realUID(of: 23) == nil)
        try proc.write(99, "fdinfo/5", "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1057\n")
        try proc.link(99, "fdinfo/6", to: "/dev/null")
        try FileManager.default.createSymbolicLink(atPath: proc.root + "/self", withDestinationPath: "99")
        #expect(facts.pid(ofPidfd: 5) == nil)
        #expect(facts.pid(ofPidfd: 6) == nil)
        try proc.write(99, "fdinfo/7", "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1057\nPid:\t-1\nNSpid:\t-1\n")
        #expect(facts.pid(ofPidfd: 7) == -1)
    }

    @Test("I14: the real and effective uids come from Uid:, the start time from field 22 of stat, after the name")
    func uidsAndStartTime() throws {
        let proc = try FakeProc()
        try proc.write(30, "status", "Name:\tx\nUid:\t1000\t0\t0\t0\n")
        // A name may hold spaces and parentheses: the fields are counted after the last ")".
        try proc.write(30, "stat", "30 (a) b (c) S 1 30 30 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 4242 1000 0\n")
        let facts = ProcessFacts(procRoot: proc.root)
        #expect(facts.uids(of: 30).map { [$0.real, $0.effective] } == [1000, 0])
        #expect(facts.startTicks(of: 30) == 4242)
        try proc.write(31, "status", "Name:\tx\nUid:\t1000\n")
        try proc.write(31, "stat", "31 (short) S 1 31\n")
        #expect(facts.uids(of: 31) == nil)
        #expect(facts.startTicks(of: 31) == nil)
        // On the real /proc: this process started before now, and its uids are its own.
        let own = ProcessFacts()
        #expect(own.uids(of: getpid()).map { [$0.real, $0.effective] } == [getuid(), geteuid()])
        let started = try #require(own.startTicks(of: getpid()))
        #expect(started <= ProcessFacts.ticksSinceBoot())
    }

    @Test("I9: a field is the first word after its name on the first line that starts with it")
    func fieldWords() {
        #expect(ProcessFacts.field("Uid:", in: "Uid:\t1000\t0\t0\t0") == "1000")
        #expect(ProcessFacts.field("Uid:", in: "Name:\tx\nUid: \t 7 8\nUid:\t9\n") == "7")
        #expect(ProcessFacts.field("Uid:", in: "Name:\tUid:\t5\n\nUid:\n") == nil)
        #expect(ProcessFacts.field("Pid:", in: "NSpid:\t4\nPid:\t-1\n") == "-1")
        #expect(ProcessFacts.field("Pid:", in: "") == nil)
        #expect(ProcessFacts.field("Pid:", in: "Pid:") == nil)
    }

    @Test("I9: on the real /proc a pidfd names its child until the child is reaped, then -1")
    func realPidfd() throws {
        let facts = ProcessFacts()
        #expect(facts.executable(of: getpid()) == ProcFiles.link("/proc/self/exe"))
        #expect(facts.realUID(of: getpid()) == getuid())
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "read line"]
        let input = Pipe()
        child.standardInput = input
        try child.run()
        let pidfd = try #require(ProcessFacts.openPidfd(child.processIdentifier), "pidfd_open: errno \(errno)")
        defer { close(pidfd) }
        #expect(facts.pid(ofPidfd: pidfd) == child.processIdentifier)
        let shell = URL(fileURLWithPath: "/bin/sh").resolvingSymlinksInPath().path
        #expect(facts.executable(of: child.processIdentifier) == shell)
        try input.fileHandleForWriting.close()
        try #require(child.waitUntilReaped(), "the child exited and was not reaped")
        #expect(facts.pid(ofPidfd: pidfd) == -1)
        let file = open("/dev/null", O_RDONLY)
        defer { close(file) }
        #expect(facts.pid(ofPidfd: file) == nil)
        #expect(ProcessFacts.openPidfd(0) == nil)
    }
}
