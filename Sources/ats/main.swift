import ATSCommandLine
import Foundation

let status = await ATSCommand.run(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
