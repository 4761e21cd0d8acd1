"""The Slack edge, in four rooms:

- :mod:`bot.slack.web`: the HTTP front (``server``: waitress, ``/slack/events``,
  ``/healthz``, ``/metrics``; ``gate`` and ``shapes`` check a request before Bolt
  parses it), Socket Mode (``socket_mode``, ``probe``), metrics and logging;
- :mod:`bot.slack.adapter`: Slack's side of things: the Bolt ``app``, its
  ``listeners`` (one small function per event, button, modal and command: ack,
  then submit a job), ``middleware``, the Web API ``gateway``, request ``payloads``,
  OAuth ``install``/``uninstall``, the token ``link``, snippet ``downloads``;
- :mod:`bot.slack.queue`: the durable jobs: ``intake`` writes a job before Slack
  is acknowledged, the ``runner`` claims and does it, ``jobs`` declares the job
  kinds (``@task`` beside each use case), ``handlers`` wires them, ``failures``;
- :mod:`bot.slack.usecases`: what errkb does, one module per feature
  (``answer_paste``, ``corrections``, ``feedback``, ``slash``, ``app_home``,
  ``digest_actions`` …), each a plain function of the job and what it uses.

:mod:`bot.bootstrap` wires them. The ids and the button/modal state models
are pure data and live with the renderers (:mod:`bot.render.ids`,
:mod:`bot.render.state`).
"""
