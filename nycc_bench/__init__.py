"""nycc-bench: the NYCC humor benchmarks on the Hugging Face ecosystem."""
__version__ = "0.1.0"
