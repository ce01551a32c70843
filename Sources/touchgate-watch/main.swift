import Glibc
import TouchGate
import TouchGateWatch

// `touchgate watch` execs this with the command line it resolved; only this executable links libdbus-1.
exit(Watcher.main(commandLineArguments()).rawValue)
