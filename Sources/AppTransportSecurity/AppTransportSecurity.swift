/// App Transport Security: reads an app's ATS configuration, resolves the requirements that apply to one
/// URL, and audits the configuration. The module does no network I/O.
public enum AppTransportSecurity {}
