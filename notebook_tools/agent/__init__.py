"""The agent: request -> message -> run tools -> append results -> next, with pauses."""
