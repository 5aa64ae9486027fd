import Testing
import VariablySync
