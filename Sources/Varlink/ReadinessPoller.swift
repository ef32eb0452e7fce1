import CEpoll
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// Tells when a socket that NIO owns but does not read has bytes to read: one `epoll` thread for the process.
///
/// A connection is read with `recvmsg` until it is identified (``IdentificationHandler``), because NIO reads
/// with `read` and drops the credentials; NIO's own selector does not watch it for reading meanwhile (its
/// `autoRead` is off). Each watch is one-shot: the callback runs once per readiness, and the reader re-arms
/// after it has read what was there.
///
/// A descriptor is only ever named here while its channel is open (the handler's callers run on the event
/// loop, where NIO closes it): a closed descriptor leaves the epoll set by itself, and ``forget(_:)`` then
/// drops its callback without touching a number that another connection may already have.
final class ReadinessPoller: Sendable {
    static let shared = ReadinessPoller()

    private let epoll: Int32
    /// The callback of each watched token; tokens are never reused, so a stale readiness finds nothing.
    private let callbacks = NIOLockedValueBox<(next: UInt64, byToken: [UInt64: @Sendable () -> Void])>(
        (1, [:])
    )

    private init() {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { return }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &thread,
            nil,
            { argument in
                guard let argument else {
                    preconditionFailure("pthread_create hands the thread the poller it was given")
                }
                let poller = Unmanaged<ReadinessPoller>.fromOpaque(argument).takeRetainedValue()
                poller.run()
                return nil
            },
            box
        )
        pthread_detach(thread)
    }

    /// Watches `descriptor` for readability; returns the token that names this watch, or `nil` if it cannot.
    func watch(_ descriptor: Int32, callback: @escaping @Sendable () -> Void) -> UInt64? {
        guard epoll >= 0 else { return nil }
        let token = callbacks.withLockedValue { state in
            let token = state.next
            state.next += 1
            state.byToken[token] = callback
            return token
        }
        guard control(EPOLL_CTL_ADD, descriptor, token) else {
            forget(token)
            return nil
        }
        return token
    }

    /// Arms the one-shot watch again, after the reader has read everything there was.
    func rearm(_ descriptor: Int32, token: UInt64) -> Bool {
        control(EPOLL_CTL_MOD, descriptor, token)
    }

    /// Stops watching a descriptor that is still open.
    func unwatch(_ descriptor: Int32, token: UInt64) {
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &event)
        forget(token)
    }

    /// Drops the callback of a descriptor that has been closed (and so has left the epoll set).
    func forget(_ token: UInt64) {
        _ = callbacks.withLockedValue { $0.byToken.removeValue(forKey: token) }
    }

    private func control(_ operation: Int32, _ descriptor: Int32, _ token: UInt64) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLONESHOT.rawValue
        event.data.u64 = token
        return epoll_ctl(epoll, operation, descriptor, &event) == 0
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while true {
            let count = epoll_wait(epoll, &events, Int32(events.count), -1)
            guard count > 0 else { continue }
            for index in 0..<Int(count) {
                let token = events[index].data.u64
                let callback = callbacks.withLockedValue { $0.byToken[token] }
                callback?()
            }
        }
    }
}
