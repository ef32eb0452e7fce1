import CGlobalExecutorHook
import NIOCore
import NIOPosix

/// Swift concurrency's global executor moved to NIO's singleton event loops, in every build of the programs.
///
/// NIO's own `unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()` finds the runtime's hook
/// with `dlsym`, which fails in the static Swift runtime the Debian packages and the benchmark link: the variable is
/// hidden there. The global executor then stays libdispatch's pool, whose monitor thread wakes an idle process once
/// a second. ``takeOver()`` installs the same thing through a C reference to the hook (``CGlobalExecutorHook``),
/// which the linker resolves in the static and the shared runtime alike.
public enum GlobalExecutor {
    /// Sends every job of the global executor to an event loop of NIO's singleton group: the one the caller runs on
    /// when it runs on one (no hop), else any. Call it once, on the main thread, before any task starts; `false`
    /// when another hook was already installed.
    @discardableResult
    public static func takeOver() -> Bool {
        locd_take_over_global_executor { job in
            // The runtime's job, as the enqueue of a SerialExecutor takes it.
            let job = unsafeBitCast(job, to: UnownedJob.self)
            MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(ExecutorJob(job))
        } == 1
    }
}
