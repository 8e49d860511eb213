"""The console: a second application on the server's HTTP port, for the people who build a project (its page
and script modules, `pages`; the Judge tab's files, `judging`; the routes only it reads, `routes`). It sits on
the server's core (the service, the route envelope) and under the app that mounts it (`haygate.serve.http`)."""
