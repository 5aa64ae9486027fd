// VariablySync: remote sources, the simulated server, the repository and the file cache (issue 5).
internal import VariablyCodable
