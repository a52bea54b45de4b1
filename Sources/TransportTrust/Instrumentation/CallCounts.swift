import NIOConcurrencyHelpers

/// Counts the steps a request's path must take once (issue #37: a URL parsed once, a pin file validated once).
///
/// A test binds a counter to its task with `CallCounts.$current.withValue(counts) { … }` and reads it afterwards;
/// tasks started inside inherit it. Without one bound, counting costs a task-local read.
package final class CallCounts: Sendable {
    package enum Step: Hashable, Sendable {
        /// A request URL parsed into its scheme, host, port and path (AppTransportSecurity's `ConnectionTarget`).
        case urlParse
        /// A pin configuration validated under its format's rules.
        case pinValidation
        /// A trust manager's rule chosen for a host.
        case hostRule
    }

    @TaskLocal package static var current: CallCounts?

    private let counts = NIOLockedValueBox<[Step: Int]>([:])

    package init() {}

    /// Counts one `step` for the counter bound to the current task, if any.
    package static func count(_ step: Step) {
        current?.counts.withLockedValue { $0[step, default: 0] += 1 }
    }

    package subscript(step: Step) -> Int { counts.withLockedValue { $0[step, default: 0] } }
}
