"""Chats and members in the fake Bot API: getChat, getChatMember, getChatAdministrators..."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .models import FakeChat, bad_request

if TYPE_CHECKING:
    from .clients import FakeUser

_ADMIN_RIGHTS = dict.fromkeys(
    (
        "can_be_edited", "is_anonymous", "can_manage_chat", "can_delete_messages",
        "can_manage_video_chats", "can_restrict_members", "can_promote_members",
        "can_change_info", "can_invite_users", "can_post_stories", "can_edit_stories",
        "can_delete_stories", "can_pin_messages", "can_manage_topics",
    ),
    False,
)

_MUTED = dict.fromkeys(
    (
        "can_send_messages", "can_send_audios", "can_send_documents", "can_send_photos",
        "can_send_videos", "can_send_video_notes", "can_send_voice_notes", "can_send_polls",
        "can_send_other_messages", "can_add_web_page_previews", "can_change_info",
        "can_invite_users", "can_pin_messages", "can_manage_topics", "can_edit_tag",
        "can_react_to_messages",
    ),
    False,
)
"""A ``restricted`` member's rights when it is muted (ChatMemberRestricted)."""


class ChatsMixin:
    """Chat and member methods; expects the attributes and methods of ``FakeBotAPI``."""

    bot_id: int
    chats: dict[int, FakeChat]
    users: dict[int, FakeUser]

    def is_member(self, chat: FakeChat, user_id: int) -> bool:
        """Whether ``user_id`` is in the group now (as getChatMember would say)."""
        return user_id in self.users and self.member_dict(chat, user_id)["status"] in (
            "creator", "administrator", "member", "restricted")

    def _m_getchat(self, p: dict) -> dict:
        chat_id = p.get("chat_id")
        user = self.users.get(chat_id) if isinstance(chat_id, int) else None
        if user is not None:
            if not user.started:
                raise bad_request("chat not found")
            return self.private_chat(user).to_full_dict()
        chat = self.chats.get(chat_id) if isinstance(chat_id, int) else None
        if chat is None:
            raise bad_request("chat not found")
        return chat.to_full_dict()

    def member_dict(self, chat: FakeChat, user_id: int) -> dict:
        """The ``ChatMember`` object for ``user_id`` in ``chat``."""
        user = self.user_dict(user_id)
        if user_id in chat.statuses:
            status = chat.statuses[user_id]
        elif chat.admins and chat.admins[0] == user_id:
            status = "creator"
        elif user_id in chat.admins or (user_id == self.bot_id and chat.bot_admin):
            status = "administrator"
        elif user_id in self.users or user_id == self.bot_id or chat.type == "private":
            status = "member"
        else:
            status = "left"
        data: dict[str, Any] = {"status": status, "user": user}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data.update(_ADMIN_RIGHTS, can_delete_messages=True, can_manage_chat=True)
            if user_id == self.bot_id and chat.is_forum:
                data["can_manage_topics"] = chat.bot_can_manage_topics
        elif status == "kicked":
            data["until_date"] = 0
        elif status == "restricted":  # (muted: in the group, may send nothing)
            data.update(_MUTED, is_member=True, until_date=0)
        return data

    def _m_getchatmember(self, p: dict) -> dict:
        chat = self._group_or_private(p)
        user_id = p.get("user_id")
        if not isinstance(user_id, int):
            raise bad_request("user not found")
        return self.member_dict(chat, user_id)

    def _m_getchatadministrators(self, p: dict) -> list:
        chat = self._group_or_private(p)
        ids = list(chat.admins) + ([self.bot_id] if chat.bot_admin else [])
        return [self.member_dict(chat, uid) for uid in ids]

    def _group_or_private(self, p: dict) -> FakeChat:
        chat_id = p.get("chat_id")
        if isinstance(chat_id, int) and chat_id in self.users:
            return self.private_chat(self.users[chat_id])
        chat = self.chats.get(chat_id) if isinstance(chat_id, int) else None
        if chat is None:
            raise bad_request("chat not found")
        return chat

    def _m_sendchataction(self, p: dict) -> bool:
        self._target_chat(p)
        return True
