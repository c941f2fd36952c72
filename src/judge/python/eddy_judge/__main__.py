"""`python -I -m eddy_judge`: the trusted judge worker."""

from .worker import main

if __name__ == "__main__":
    main()
