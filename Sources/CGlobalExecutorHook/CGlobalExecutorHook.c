#include "CGlobalExecutorHook.h"

#include <stddef.h>

// The runtime's declaration (include/swift/Runtime/ConcurrencyHooks.def): a Swift-convention function of the job
// and the runtime's own enqueue.
typedef void (*locd_enqueue_original)(void *job) __attribute__((swiftcall));
typedef void (*locd_enqueue_hook)(void *job, locd_enqueue_original original) __attribute__((swiftcall));
extern locd_enqueue_hook swift_task_enqueueGlobal_hook;

static locd_global_job_sink locd_sink;

__attribute__((swiftcall)) static void locd_enqueue(void *job, locd_enqueue_original original) {
    (void)original;
    locd_sink(job);
}

int locd_take_over_global_executor(locd_global_job_sink sink) {
    locd_sink = sink;
    locd_enqueue_hook expected = NULL;
    return __atomic_compare_exchange_n(&swift_task_enqueueGlobal_hook, &expected, locd_enqueue, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}
