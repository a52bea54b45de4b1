/// A list that is almost always one element long, which then needs no array: the continuations or callbacks waiting
/// for one event (``ExchangeCompletion``), the unread pieces of a body (``BodyBuffer``).
struct SmallList<Element> {
    private var first: Element?
    private var more: [Element] = []

    var isEmpty: Bool { first == nil }

    /// The element when there is exactly one.
    var only: Element? { more.isEmpty ? first : nil }

    mutating func append(_ element: Element) {
        if first == nil { first = element } else { more.append(element) }
    }

    func forEach(_ body: (Element) -> Void) {
        guard let first else { return }
        body(first)
        more.forEach(body)
    }
}

extension SmallList: Sendable where Element: Sendable {}
