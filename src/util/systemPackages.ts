/**
 * The one command that installs missing system packages on Debian/Ubuntu, worded as
 * scripts/setup.sh words it (test/docs/freshMachine.test.ts holds the two to the same words):
 * `apt-get` itself as root, else through `sudo`.
 */
export function aptInstallCommand(packages: readonly string[], root = process.getuid?.() === 0): string {
    return `${root ? "" : "sudo "}apt-get install -y ${packages.join(" ")}`;
}
