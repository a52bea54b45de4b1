import TestSupport
import Crypto
import Foundation
import SwiftASN1
import X509
import _CryptoExtras

@testable import TransportTrust

extension TrustEngine {
    /// How many validated paths the engine remembers.
    var rememberedPaths: Int { cache.count }
}
