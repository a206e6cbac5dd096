"""The web interface (``reflect-git serve``): pages and a JSON API over the same workflows.

An interface layer beside ``cli/``: the only package that imports the web framework
(Starlette, uvicorn, Jinja2, markdown-it). It calls workflows as the CLI does and never runs
git. ``security`` holds the token, cookie, CSRF and Host rules; ``app`` the routes;
``server`` runs it on uvicorn until Ctrl-C.
"""
