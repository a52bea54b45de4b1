import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// A request head as an HTTP/2 header block, and a response header block as a head: what NIO's
/// HTTP2FramePayloadToHTTP1ClientCodec did per stream, here done on the connection's handler.
enum HTTP2Messages {
    /// The request's header block (RFC 9113 §8.3.1): pseudo-header fields first, the Host header as :authority,
    /// field names in lower case. Connection-specific fields were already removed
    /// (``HTTP2Session/removingConnectionHeaders(_:)``).
    static func headerBlock(_ head: HTTPRequestHead) -> HPACKHeaders {
        var block = HPACKHeaders()
        block.reserveCapacity(head.headers.count + 4)
        block.add(name: ":method", value: head.method.rawValue)
        block.add(name: ":scheme", value: "https")
        if let authority = head.headers.first(name: "host") { block.add(name: ":authority", value: authority) }
        block.add(name: ":path", value: head.uri)
        for (name, value) in head.headers where name.lowercased() != "host" {
            block.add(name: name.lowercased(), value: value)
        }
        return block
    }

    /// A response head from its header block; nil when :status is missing or not a three-digit code (NIO validates
    /// the block's form; the code is checked here).
    static func responseHead(_ block: HPACKHeaders) -> HTTPResponseHead? {
        guard let status = block.first(name: ":status"), status.utf8.count == 3, let code = Int(status), (100...999).contains(code) else {
            return nil
        }
        var headers = HTTPHeaders()
        headers.reserveCapacity(block.count)
        for (name, value, _) in block where !name.hasPrefix(":") { headers.add(name: name, value: value) }
        return HTTPResponseHead(version: .http2, status: HTTPResponseStatus(statusCode: code), headers: headers)
    }

    /// Whether a status is an interim response (RFC 9110 §15.2): not the answer. 101 is final wherever it comes.
    static func isInformational(_ code: Int) -> Bool { (100..<200).contains(code) && code != 101 }
}
