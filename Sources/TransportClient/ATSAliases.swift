import AppTransportSecurity

// NIOSSL also declares a `TLSVersion`; files that import both write `AppTransportSecurity.TLSVersion`, or this alias.

/// ATS's TLS version (`NSExceptionMinimumTLSVersion` values).
package typealias ATSTLSVersion = TLSVersion
