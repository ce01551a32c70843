import TouchGate
