"""The review console (`dedup-pipeline serve`): a Flask app where reviewers work through the
queue of what the rule cannot settle, see two rows side by side with the report's character
diff, and decide; every later run obeys what they decided.

- desk.py: what the console asks of the library (the queue, rows, decisions, figures), one
  object a test can replace;
- guard.py: who gets in and what a request must carry (secret key, CSRF, login limits, headers);
- app.py: the pages and the small JSON API; templates/ and static/ hold the HTML, CSS and JS.
"""
