/// A JSON decoding failure in words, with where in the document it happened: `DecodingError`'s own text is a Swift
/// type dump, which means nothing to the person who wrote the file.
package enum JSONProblem {
    /// - Parameter topLevel: what to say when the document as a whole has the wrong shape.
    package static func describe(_ error: any Error, topLevel: String = "the top level does not have the expected shape") -> String {
        guard let error = error as? DecodingError else { return "it cannot be read as JSON" }
        func path(_ c: [any CodingKey]) -> String {
            c.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch error {
        case .keyNotFound(let key, let ctx):
            let at = path(ctx.codingPath)
            return "\(at.isEmpty ? "the top level" : at) has no '\(key.stringValue)'"
        case .typeMismatch(let type, let ctx), .valueNotFound(let type, let ctx):
            let at = path(ctx.codingPath)
            let expected = type == String.self ? "a string" : "of the expected type"
            return at.isEmpty ? topLevel : "\(at) is not \(expected)"
        case .dataCorrupted(let ctx):
            return ctx.codingPath.isEmpty ? "it is not JSON" : "\(path(ctx.codingPath)) is malformed"
        @unknown default:
            return topLevel
        }
    }
}
