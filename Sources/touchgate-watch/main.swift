import Glibc
import TouchGateCLI

// `touchgate watch` execs this with its own arguments; only this executable links libdbus-1.
exit(TouchGateCommand.watcherMain(commandLineArguments()) { runner in try runner.watchLoop() }.rawValue)
