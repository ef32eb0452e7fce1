import Foundation
import LocationTestSupport

@testable import LocationAgent

#if canImport(Glibc)
import Glibc
#endif

/// Reads a desktop source as locd-agent does: polls its descriptor, and calls `readable()` when it is ready. Keeps
/// every picture the source gave, in order.
final class DesktopPictureReader {
    let source: any DesktopSource
    private(set) var pictures: [DesktopPicture] = []
    /// How many times the descriptor said it was ready.
    private(set) var wakeUps = 0

    init(_ source: any DesktopSource) { self.source = source }

    /// Reads until the newest picture satisfies `condition`, for at most `timeout` seconds; whether it came. Each
    /// wait is a `poll` of the descriptor, never a sleep.
    func waitFor(timeout: Double = 20, _ condition: (DesktopPicture) -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let last = pictures.last, condition(last) { return true }
            try readOnce(milliseconds: 100)
        }
        return pictures.last.map(condition) ?? false
    }

    /// Waits at most `milliseconds` for the descriptor, and reads if it is ready.
    func readOnce(milliseconds: Int32) throws {
        var descriptor = pollfd(fd: source.descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) > 0 else { return }
        wakeUps += 1
        if let picture = try source.readable() { pictures.append(picture) }
    }

    /// The focused window of the newest picture.
    var focused: DesktopWindow? { pictures.last?.windows.first { $0.focused } }
}
