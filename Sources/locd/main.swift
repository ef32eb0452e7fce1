import NIOCore
import NIOPosix

// Swift concurrency (the service group and its services, the signal sequences) runs on NIO's event loops
// rather than on libdispatch's worker pool, installed before any task starts: that pool's monitor is a
// 1 Hz timer that woke an idle locd 25 times a minute (locd-bench, idle scenario); an idle NIO loop sleeps.
NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

// What `@main` on an `AsyncParsableCommand` does: parse, then run (help, version and errors exit here).
do {
    var command = try Locd.parseAsRoot()
    if let locd = command as? Locd {
        try await locd.run()
    } else {
        try command.run()
    }
} catch {
    Locd.exit(withError: error)
}
