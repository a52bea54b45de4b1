/// How one pin-file format is read and written. Each ``PinConfigurationFormat`` is one type conforming to this,
/// listed in one table, `PinConfigurationFormat.codec`, which AppTransportSecurity declares because it holds the ATS
/// format's reader: an ATS file is read by the parser that reads every ATS configuration.
package protocol PinFileCodec {
    /// The configuration in `bytes`, read but not validated, and what the reader noticed. `source` names the file in
    /// errors and warnings.
    static func read(_ bytes: [UInt8], source: String) throws(PinConfigurationError)
        -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning])

    /// The file that holds `configuration`, and what the format could not express and how it was written instead.
    static func write(_ configuration: PinConfiguration) -> (text: String, warnings: [PinConfigurationWarning])
}
