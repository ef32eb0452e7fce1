import GlobalExecutor

extension Locd {
    /// What `@main` on an `AsyncParsableCommand` does, parse then run (help, version and errors exit here), with
    /// Swift concurrency moved to NIO's event loops first. Called from the top-level code of an executable, on the
    /// main actor, where that code runs.
    ///
    /// Swift concurrency (the service group and its services, the signal sequences) runs on NIO's event loops
    /// rather than on libdispatch's worker pool, installed before any task starts: that pool's monitor is a 1 Hz
    /// timer that woke an idle locd 25 times a minute (locd-bench, idle scenario); an idle NIO loop sleeps. On the
    /// main actor, so that the install comes before the first hop to the global executor (``run()``'s). Not named
    /// `main`: a call `await Locd.main()` was resolved to argument-parser's synchronous `main()`, which refuses an
    /// `AsyncParsableCommand`.
    @MainActor
    package static func launch() async {
        GlobalExecutor.takeOver()
        do {
            var command = try parseAsRoot()
            if let locd = command as? Locd {
                try await locd.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
