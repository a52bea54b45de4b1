import AppTransportSecurity

// NIOSSL also declares a `TLSVersion`, and the module `AppTransportSecurity` has an enum of the same name, so
// the ATS type cannot be qualified in files that import both. This file imports only ATS.

/// ATS's TLS version (`NSExceptionMinimumTLSVersion` values).
package typealias ATSTLSVersion = TLSVersion
