import Foundation
import NIOConcurrencyHelpers

/// A thread of its own that runs the asynchronous work handed to it: a task that prefers it
/// runs its jobs here, and so do the continuations it waits for.
///
/// postgres-nio's `COPY` is `async`. Waited for from a thread of Swift concurrency's pool
/// (a test, say), a task on that pool could find every thread of it blocked (two cores: two
/// threads) and never run; a task preferring this thread needs none of the pool's.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var ended = false

    init(name: String) {
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty, !ended { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// Runs `body` on this thread and waits for its result. Call it from any other thread.
    func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let result = NIOLockedValueBox<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: self) {
            do {
                let value = try await body()
                result.withLockedValue { $0 = .success(value) }
            } catch {
                result.withLockedValue { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try result.withLockedValue { $0! }.get()
    }

    /// Lets the thread end once its jobs are done. Nothing may be given to it after: a job
    /// that came later would never run (``wait(_:)`` would wait for good).
    func end() {
        condition.lock()
        ended = true
        condition.signal()
        condition.unlock()
    }
}
