"""nycc-bench inside EleutherAI's lm-evaluation-harness: exported task files (`export`), the hooks they call
(`runtime`), and lm-eval results read back into a results record (`importer`)."""
