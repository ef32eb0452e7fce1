import Foundation

/// Polls `condition` every `interval` seconds until it holds or `timeout` seconds pass; whether it held. It is
/// checked once more at the deadline, so a slow last poll still counts. This is the wait for something another
/// thread or process does (a close reaching the daemon, a fix reaching a provider), never a fixed sleep.
@available(*, noasync, message: "await eventually instead: it sleeps without holding a thread of the pool")
package func eventually(
    timeout: Double = 20,
    every interval: Double = 0.01,
    _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: interval)
    }
    return try condition()
}

/// ``eventually(timeout:every:_:)`` for async code: it sleeps with `Task.sleep`, and `condition` runs on the
/// caller's actor, so an actor can poll its own state while its other calls record into it between polls.
nonisolated(nonsending) package func eventually(
    timeout: Double = 20,
    every interval: Double = 0.01,
    _ condition: () throws -> Bool
) async throws -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        try await Task.sleep(for: .seconds(interval))
    }
    return try condition()
}
