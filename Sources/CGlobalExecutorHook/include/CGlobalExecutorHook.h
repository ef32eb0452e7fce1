#ifndef C_GLOBAL_EXECUTOR_HOOK_H
#define C_GLOBAL_EXECUTOR_HOOK_H

// Where Swift concurrency's global executor sends its jobs, for GlobalExecutor.takeOver().
//
// Swift's runtime calls `swift_task_enqueueGlobal_hook`, when set, for every job enqueued on the global executor.
// SwiftNIO finds that variable with dlsym, which fails in a static Swift runtime: there the variable is hidden.
// Named here, the linker resolves it in either runtime.

// Receives each job of the global executor once the hook is installed.
typedef void (*locd_global_job_sink)(void *_Nonnull job);

// Installs `sink` as the hook's target: 1 when installed, 0 when another hook was already in place.
int locd_take_over_global_executor(locd_global_job_sink _Nonnull sink);

#endif
