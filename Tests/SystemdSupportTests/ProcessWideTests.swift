import Testing

/// Every suite of this target nests in here, so they run one at a time.
///
/// They change process-wide state: environment variables (setenv is not thread-safe against the
/// getenv and posix_spawn of a test running beside it) and child processes that inherit it. `make test` runs
/// this target in a test process of its own, since other targets' suites spawn processes all the time.
@Suite(.serialized)
enum ProcessWideTests {}
