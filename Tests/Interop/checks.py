"""The pass/fail lines every interop script prints: `ok   name` or `FAIL name (detail)`, then
`<label>: N of M checks passed` (which the Swift tests look for)."""


class Checks:
    def __init__(self):
        self.count = 0
        self.failures = []

    def __call__(self, name, condition, detail=""):
        self.count += 1
        print(("ok   " if condition else "FAIL ") + name + (f" ({detail})" if detail and not condition else ""),
              flush=True)
        if not condition:
            self.failures.append(name)
        return condition

    def finish(self, label):
        """Prints the summary line; the exit status: 0 when every check passed."""
        print(f"{label}: {self.count - len(self.failures)} of {self.count} checks passed")
        return 1 if self.failures else 0
