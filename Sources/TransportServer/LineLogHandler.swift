import Logging

/// A log handler that hands each message, as one line of text, to a closure: to print refusals on a terminal, count
/// them, or keep them in a test. Metadata is kept but not written; refusal lines carry everything in the message.
package struct LineLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .notice
    private let write: @Sendable (String) -> Void

    public init(logLevel: Logger.Level = .notice, _ write: @escaping @Sendable (String) -> Void) {
        self.logLevel = logLevel
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) { write("\(event.message)") }
}
