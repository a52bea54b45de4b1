@_exported import TransportDecision
