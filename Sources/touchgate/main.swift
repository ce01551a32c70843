import Glibc
import TouchGateCLI

exit(TouchGateCommand.main(Array(CommandLine.arguments.dropFirst())).rawValue)
