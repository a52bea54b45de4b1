import TransportTrust

/// Reading and writing pin files: one table of every format's reader and writer. It is declared here, not in
/// TransportTrust, because the ATS format is read by this module's parser.
extension PinConfigurationFormat {
    /// The type that reads and writes this format: the one table of formats.
    package var codec: any PinFileCodec.Type {
        switch self {
        case .ats: return ATSPinFile.self
        case .trustKit: return TrustKitPlistPinFormat.self
        case .trustKitJSON: return TrustKitJSONPinFormat.self
        case .okhttp: return OkHttpPinFormat.self
        case .android: return AndroidPinFormat.self
        }
    }

    /// Reads a pin configuration from `bytes`, guessing the format when `format` is nil.
    ///
    /// An ATS file (an Info.plist, or a bare NSAppTransportSecurity dictionary) is read by the parser that reads
    /// every ATS configuration, so its NSPinnedDomains mean exactly what they mean to ``RequirementsResolver``.
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - source: the file name, for error messages.
    ///   - format: the format, or nil to recognise it from the document's structure.
    /// - Returns: the configuration and any warnings. The configuration is read but not validated; call
    ///   `PinConfiguration.validate(now:source:)`, which applies the format's rules.
    public static func read(_ bytes: [UInt8], source: String, format: PinConfigurationFormat? = nil)
        throws(PinConfigurationError) -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning])
    {
        let format = format ?? detect(bytes)
        var read = try format.codec.read(bytes, source: source)
        read.configuration.rules = format.rules
        read.configuration.matching = format.matching
        return read
    }

    /// Reads the file at `path`.
    public static func read(path: String, format: PinConfigurationFormat? = nil)
        throws(PinConfigurationError) -> (configuration: PinConfiguration, warnings: [PinConfigurationWarning])
    {
        try read(try readPinFileBytes(path), source: InputFile.source(path), format: format)
    }

    /// Writes `configuration` in this format. Warnings say what the format cannot express and how it was written
    /// instead.
    public func write(_ configuration: PinConfiguration) -> (text: String, warnings: [PinConfigurationWarning]) {
        var (text, warnings) = codec.write(configuration)
        if let warning = matchingWarning(for: configuration) { warnings.append(warning) }
        return (text, warnings)
    }
}
