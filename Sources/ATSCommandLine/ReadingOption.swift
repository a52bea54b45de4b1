import AppTransportSecurity
import ArgumentParser

/// `--as info-plist|ats-dictionary`: how to read a plist whose keys could be either, for every command that reads one.
struct ReadingOption: ParsableArguments {
    enum Reading: String, ExpressibleByArgument, CaseIterable {
        case infoPlist = "info-plist"
        case atsDictionary = "ats-dictionary"

        var layout: ConfigurationSource.Layout { self == .infoPlist ? .infoPlist : .bareDictionary }
    }

    @Option(name: .customLong("as"), help: ArgumentHelp(
        "Read each plist as an Info.plist (ATS keys only inside NSAppTransportSecurity) or as a bare NSAppTransportSecurity dictionary (its root keys are the ATS keys). Default: decided from the keys, and the report says how.",
        valueName: "info-plist|ats-dictionary"))
    var reading: Reading?

    var loader: ConfigurationLoader { ConfigurationLoader(layout: reading?.layout) }
}
