import Foundation
import LocationTestSupport
import Testing
import Varlink

/// Another process holding an exclusive SQLite lock on a daemon's store (`Scripts/hold_store_lock.py`): the
/// daemon's commits wait on it, then fail, until ``release()``.
final class StoreLock {
    private let holder = Process()
    private let input = Pipe()

    init(_ daemon: DaemonProcess) throws {
        let output = Pipe()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3",
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Scripts/hold_store_lock.py").path,
            daemon.stateDirectory + "/locd.sqlite",
        ]
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        let said = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        try #require(said.hasPrefix("locked"))
    }

    deinit { release() }

    /// Lets go of the lock and waits for the holder to exit.
    func release() {
        guard holder.isRunning else { return }
        try? input.fileHandleForWriting.close()
        holder.waitForExit()
    }
}

extension DaemonProcess {
    /// Asks `Admin.Status` until `storeHealthy` is `healthy`, for at most `timeout` seconds; returns whether
    /// it got there.
    func waitForStore(healthy: Bool, on admin: VarlinkClient, timeout: Double = 10) throws -> Bool {
        // Status is cheap, but not worth asking a thousand times a second.
        try eventually(timeout: timeout, every: 0.02) {
            try admin.call("io.locd.Admin.Status")["status"]?["storeHealthy"] == .bool(healthy)
        }
    }
}
