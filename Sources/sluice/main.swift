import Glibc

StandardStreams.install()
var status = SluiceCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
if let failure = StandardOutput.shared.failure, status == ExitCode.success {
  // `run` decides for itself (its data may be committed); anything else just failed to deliver.
  printError("sluice: cannot write to standard output: \(failure)")
  status = ExitCode.ioError
}
exit(status)
