"""Files for spark-submit to run. They live in a folder of their own: spark-submit puts a
script's folder first on sys.path, and the package's own folder would shadow the standard
library (its tokenize.py)."""
