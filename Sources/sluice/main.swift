import Glibc

let status = SluiceCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
exit(status)
