import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// GNOME's location switch, `org.gnome.system.location enabled` in the person's dconf (SEMANTICS N12), through dconf's
/// own programs: `dconf read` (a read of the person's database file, no bus call), `dconf watch`, a child whose
/// output the agent's loop polls beside its other descriptors, and `dconf write`, which is not waited for.
final class LocationSwitch {
    static let key = "/org/gnome/system/location/enabled"
    static let accuracyKey = "/org/gnome/system/location/max-accuracy-level"
    private static let directory = "/org/gnome/system/location/"
    private static let setpriv = "/usr/bin/setpriv"

    /// What a read of the watch gives.
    enum Event: Equatable {
        case changed(DesktopSwitch)
        /// `max-accuracy-level` changed: `capped` while it is below `exact` (N14).
        case accuracy(capped: Bool)
        /// `dconf watch` ended: `reason`.
        case ended(String)
    }

    private let dconf: String
    private var watcher: Process?
    private var output: FileHandle?
    private var pending = ""

    /// `dconf`, where it is; `nil` when nothing of dconf is installed.
    init?(dconf: String = "/usr/bin/dconf") {
        guard FileManager.default.isExecutableFile(atPath: dconf) else { return nil }
        self.dconf = dconf
    }

    deinit { stop() }

    /// Starts `dconf watch` on the switch's directory; then ``read()`` misses no change.
    func watch() throws {
        stop()
        let pipe = Pipe()
        let process = Process()
        // With the agent's SIGTERM blocked (AgentShell), a child inherits the block: it is ended with SIGKILL, and
        // setpriv's parent-death signal ends it also when the agent is killed.
        if FileManager.default.isExecutableFile(atPath: Self.setpriv) {
            process.executableURL = URL(fileURLWithPath: Self.setpriv)
            process.arguments = ["--pdeathsig", "KILL", "--", dconf, "watch", Self.directory]
        } else {
            process.executableURL = URL(fileURLWithPath: dconf)
            process.arguments = ["watch", Self.directory]
        }
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        watcher = process
        output = pipe.fileHandleForReading
        pending = ""
    }

    /// The descriptor of the watch's output, while it runs.
    var fileDescriptor: Int32? { output?.fileDescriptor }

    func stop() {
        if let watcher, watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) }
        watcher = nil
        output = nil
    }

    /// The switch now: unset, off or on; throws when dconf cannot say. `dconf read` reads the person's database file
    /// and prints the value, nothing for an unset key, and an error on its standard error; its exit is not waited for
    /// (Foundation reaps it), both pipes ending when it does.
    func read() throws -> DesktopSwitch {
        Self.value(try read(Self.key))
    }

    /// Whether `max-accuracy-level` is below `exact` now (unset is the schema's `exact`).
    func readCapped() throws -> Bool {
        Self.capped(try read(Self.accuracyKey))
    }

    private func read(_ key: String) throws -> String {
        let process = Process()
        let output = Pipe()
        let errors = Pipe()
        process.executableURL = URL(fileURLWithPath: dconf)
        process.arguments = ["read", key]
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let value = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard error.isEmpty else {
            throw AgentFailure("dconf read \(key): \(error.trimmingCharacters(in: .whitespacesAndNewlines))", code: 0)
        }
        return value
    }

    /// Whether a `max-accuracy-level` `dconf` printed is below `exact`: `'country'` … `'street'`.
    static func capped(_ text: String) -> Bool {
        ["'country'", "'city'", "'neighborhood'", "'street'"].contains(
            text.trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }

    /// Writes the switch; dconf's own service stores it, and the watch tells when it has.
    func write(_ enabled: Bool) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dconf)
        process.arguments = ["write", Self.key, enabled ? "true" : "false"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Reads what the watch printed: a change of the switch for each block naming its key.
    func receive() -> [Event] {
        guard let descriptor = fileDescriptor else { return [] }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var ended: [Event] = []
        while true {
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            if count > 0 {
                pending += String(decoding: buffer[0..<count], as: UTF8.self)
                continue
            }
            if count == 0 || (errno != EAGAIN && errno != EINTR) {
                stop()
                ended.append(.ended("dconf watch ended"))
            }
            break
        }
        var events: [Event] = []
        // Each block is the key's path, its value indented (`unset` once reset), and an empty line.
        while let end = pending.range(of: "\n\n") {
            let lines = pending[..<end.lowerBound].split(separator: "\n")
            pending.removeSubrange(..<end.upperBound)
            guard lines.count >= 2 else { continue }
            if lines[0] == Self.key { events.append(.changed(Self.value(String(lines[1])))) }
            if lines[0] == Self.accuracyKey { events.append(.accuracy(capped: Self.capped(String(lines[1])))) }
        }
        return events + ended
    }

    /// The switch that `dconf read` or `dconf watch` printed: `true`, `false`, nothing or `unset`.
    static func value(_ text: String) -> DesktopSwitch {
        switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "true": .on
        case "false": .off
        default: .unset
        }
    }
}
