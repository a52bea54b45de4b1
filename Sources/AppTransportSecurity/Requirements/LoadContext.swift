/// Which system API makes the load: the media and web-content exceptions apply only to their own APIs.
///
/// Apple: NSAllowsArbitraryLoadsForMedia covers "media loaded using the AV Foundation framework";
/// NSAllowsArbitraryLoadsInWebContent covers "requests made from web views" (WKWebView).
public enum LoadContext: String, Sendable, Hashable, CaseIterable, Codable {
    /// URLSession and the rest of the URL Loading System (the default).
    case urlSession = "url-session"
    /// AVFoundation media loads.
    case media
    /// WKWebView content.
    case webContent = "web-content"
}
