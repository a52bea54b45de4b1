extension StringProtocol {
    /// The lines of a text file, ended by LF, CRLF or CR alike. Swift reads CRLF as one `Character`, so splitting on
    /// "\n" leaves a file written on Windows as one line.
    package var lines: [SubSequence] {
        split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    }
}
