/** Whether a process with this pid runs on this machine (another user's counts: signalling it is merely not allowed). */
export function processAlive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch (err) {
        return (err as NodeJS.ErrnoException).code === "EPERM";
    }
}
